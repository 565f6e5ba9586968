import { describe, expect, it } from '@jest/globals';
import { Controller, Get, type Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { AccessDeclared } from './access-declared';
import { Public } from './access.decorators';

@Public()
@Controller('declared')
class DeclaredController {
  @Get()
  read() {}
}

@Controller('forgotten')
class ForgottenController {
  @Get()
  read() {}
}

const boot = (controller: Type) =>
  Test.createTestingModule({ imports: [DiscoveryModule], controllers: [controller], providers: [AccessDeclared] })
    .compile()
    .then((module) => module.init());

describe('AccessDeclared', () => {
  it('lets the application start when every route declares its access', async () => {
    await expect(boot(DeclaredController)).resolves.toBeDefined();
  });

  it('refuses to start with a route that declares none: it would run no credential guard', async () => {
    await expect(boot(ForgottenController)).rejects.toThrow('ForgottenController.read declares no access (@Public, @PartnerKey or @Roles)');
  });
});
