import { Module } from '@nestjs/common';
import { BackOfficeController } from './back-office.controller';
import { PageAssets } from './page-assets';

/** The back office web page at /back-office; the admin API it drives lives in ReviewModule. */
@Module({
  controllers: [BackOfficeController],
  providers: [PageAssets],
})
export class BackOfficeModule {}
