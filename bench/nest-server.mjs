// bench/nest-server.mjs: N, what the framework itself costs on this machine.
//
// A bare NestJS app on @nestjs/platform-express (the service's own versions): one module, one
// controller, one route, GET /oracle/markets/public, returning a constant success envelope
// {code:0,msg:"success",data:{markets:[<one market_item>]}} through Nest's ordinary
// return-value path, so Nest and Express serialize it on every request as an app would. Nothing
// else: no guards, pipes, interceptors, filters or middleware, no logger, no database. The
// query string is ignored. The bench measures the service's public read against it: the
// distance between the two is what the service's own pipeline, cache and logging cost.
//
// Two Express settings are turned off because the service turns them off too (src/create-app.ts):
// `etag` (Express would hash every body; the service never does) and `x-powered-by`. They are
// settings of the framework, not layers; leaving them on would charge N for work the service
// does not do.
//
//   MARKET_ITEM='{"id":1,…}' PORT=3200 node bench/nest-server.mjs
//
// MARKET_ITEM is the market_item JSON to answer (the runner passes one whose size is the mean of
// the hot set's records); without it, a small placeholder.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';

const port = Number(process.env.PORT || 3200);
const item = process.env.MARKET_ITEM ? JSON.parse(process.env.MARKET_ITEM) : { id: 1, source: 'bench', slug: 'placeholder', status: 'monitoring' };
// An object, not a string: Nest hands it to Express's res.json(), which serializes it per request.
const ENVELOPE = { code: 0, msg: 'success', data: { markets: [item] } };

// Decorators applied as functions: this file runs on plain Node, without a compile step.
class PublicMarketsController {
  getPublicMarket() {
    return ENVELOPE;
  }
}
Controller('oracle/markets')(PublicMarketsController);
Reflect.decorate(
  [Get('public')],
  PublicMarketsController.prototype,
  'getPublicMarket',
  Object.getOwnPropertyDescriptor(PublicMarketsController.prototype, 'getPublicMarket'),
);

class BareModule {}
Module({ controllers: [PublicMarketsController] })(BareModule);

const app = await NestFactory.create(BareModule, new ExpressAdapter(), { logger: false, bodyParser: false });
app.disable('etag');
app.disable('x-powered-by');
await app.listen(port, '127.0.0.1');

const stop = () => {
  app.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 3000).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
