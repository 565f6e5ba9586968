import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { SchemaGate, SchemaState } from './schema-state';

describe('SchemaGate', () => {
  it("subscribes to the app's DataSource and refuses every statement while the schema waits for its migrations, as 5030", async () => {
    const dataSource = { subscribers: [] as unknown[] };
    const module = await Test.createTestingModule({
      providers: [SchemaGate, SchemaState, { provide: getDataSourceToken(), useValue: dataSource }],
    }).compile();
    const gate = module.get(SchemaGate);
    const state = module.get(SchemaState);
    expect(dataSource.subscribers).toEqual([gate]);
    expect(() => gate.beforeQuery()).not.toThrow();
    state.markPending();
    expect(() => gate.beforeQuery()).toThrow(expect.objectContaining({ name: 'SchemaPendingError' }));
    state.markCurrent();
    expect(() => gate.beforeQuery()).not.toThrow();
  });
});
