import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { EnvelopeExceptionFilter } from './common/envelope-exception.filter';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { RequestContextMiddleware } from './common/request-context.middleware';
import { EnvelopeValidationPipe } from './common/validation';
import { validateEnvironment } from './config/environment';
import { DatabaseModule } from './database/database.module';
import { DemoModule } from './demo/demo.module';
import { DisputesModule } from './disputes/disputes.module';
import { MarketsModule } from './markets/markets.module';
import { ReviewModule } from './review/review.module';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, validate: validateEnvironment }),
    DatabaseModule,
    AuthModule,
    MarketsModule,
    DisputesModule,
    ReviewModule,
    DemoModule,
  ],
  providers: [
    { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
    { provide: APP_PIPE, useClass: EnvelopeValidationPipe },
  ],
})
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestContextMiddleware).forRoutes('{*path}');
  }
}
