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
//
// PIPELINE_SHAPE="m,g,i,p" (bench/shape.mjs) adds to the same app m middlewares, g global guards,
// i global interceptors and p global pipes (on a @Query() parameter), each a no-op: what the
// framework charges for a pipeline of that shape before any layer does work. Unset, it is
// "0,0,0,0": N as the bench runs it.
import 'reflect-metadata';
import { Controller, Get, Module, Query } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, APP_PIPE, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';

const port = Number(process.env.PORT || 3200);
const item = process.env.MARKET_ITEM ? JSON.parse(process.env.MARKET_ITEM) : { id: 1, source: 'bench', slug: 'placeholder', status: 'monitoring' };
// An object, not a string: Nest hands it to Express's res.json(), which serializes it per request.
const ENVELOPE = { code: 0, msg: 'success', data: { markets: [item] } };

const [middlewares, guards, interceptors, pipes] = (process.env.PIPELINE_SHAPE || '0,0,0,0').split(',').map(Number);

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
// A pipe runs only for a decorated parameter, as the service's runs for its @Query().
if (pipes > 0) Query()(PublicMarketsController.prototype, 'getPublicMarket', 0);

const times = (count, make) => Array.from({ length: count }, (_, index) => make(index));
// Distinct classes: Nest registers a middleware class once.
const middlewareClasses = times(middlewares, (index) => ({ [`NoOp${index}`]: class { use(_req, _res, next) { next(); } } })[`NoOp${index}`]);
const providers = [
  ...times(guards, () => ({ provide: APP_GUARD, useValue: { canActivate: () => true } })),
  ...times(interceptors, () => ({ provide: APP_INTERCEPTOR, useValue: { intercept: (_context, next) => next.handle() } })),
  ...times(pipes, () => ({ provide: APP_PIPE, useValue: { transform: (value) => value } })),
];

class BareModule {}
// Only with middlewares is it a NestModule: N as the bench runs it is left exactly as it was.
if (middlewareClasses.length > 0) {
  BareModule.prototype.configure = (consumer) => consumer.apply(...middlewareClasses).forRoutes('/');
}
Module({ controllers: [PublicMarketsController], providers })(BareModule);

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
