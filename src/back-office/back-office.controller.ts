import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/access.decorators';
import { RawResponse } from '../common/raw-response.decorator';
import { PageAssets } from './page-assets';

/** The back office page (contract §6): through the API's pipeline (request id, logs, metrics) but outside the envelope; its data comes from the admin API. */
@ApiExcludeController()
@RawResponse()
@Public()
@Controller('back-office')
export class BackOfficeController {
  constructor(private readonly assets: PageAssets) {}

  @Get()
  page(@Res() res: Response): void {
    this.assets.send(res, 'index.html');
  }

  @Get('app.js')
  script(@Res() res: Response): void {
    this.assets.send(res, 'app.js');
  }

  @Get('app.css')
  styles(@Res() res: Response): void {
    this.assets.send(res, 'app.css');
  }

  /** Any other path under the page: a plain 404, as a browser expects of a missing file. */
  @Get('*path')
  missing(@Res() res: Response): void {
    this.assets.sendText(res, 404, 'Not found.');
  }
}
