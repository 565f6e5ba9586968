import { Injectable, OnModuleInit } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService } from '@nestjs/core';
import { ACCESS } from './access.decorators';

/** A route that declares no access (@Public, @PartnerKey or @Roles) would run no credential guard: a wiring error, refused at start. */
@Injectable()
export class AccessDeclared implements OnModuleInit {
  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const { metatype } of this.discovery.getControllers()) {
      const controller = metatype as Function;
      for (const method of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[method];
        if (method === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        if (Reflect.getMetadata(ACCESS, handler) === undefined && Reflect.getMetadata(ACCESS, controller) === undefined) {
          throw new Error(`${controller.name}.${method} declares no access (@Public, @PartnerKey or @Roles)`);
        }
      }
    }
  }
}
