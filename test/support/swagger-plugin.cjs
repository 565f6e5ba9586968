// The @nestjs/swagger CLI plugin as a ts-jest AST transformer, with the options `nest build`
// uses (nest-cli.json), so the suites see the same OpenAPI document as production. Jest runs
// the TypeScript as ES modules, hence esmCompatible.
const plugin = require('@nestjs/swagger/plugin');
const nestCli = require('../../nest-cli.json');

const { options } = nestCli.compilerOptions.plugins.find((entry) => entry.name === '@nestjs/swagger');

module.exports = {
  name: 'nestjs-swagger-plugin',
  version: 1,
  factory: (compiler) => plugin.before({ ...options, esmCompatible: true }, compiler.program),
};
