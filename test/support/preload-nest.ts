// Loads NestJS's ESM packages before any test module: CommonJS packages that require() them
// (@nestjs/throttler, nestjs-pino) then find them evaluated, instead of a require(esm) cycle.
import '@nestjs/common';
import '@nestjs/core';
