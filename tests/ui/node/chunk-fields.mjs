// The fields each UI message chunk type may carry, read from the installed `ai` package itself.
//
// `uiMessageChunkSchema` is built from zod `looseObject`s, so the SDK's own validation lets
// unknown fields through. To hold toolwire to the exact vocabulary, this module evaluates the
// schema's source with a stand-in for zod that records each object's keys: the field lists are
// the installed package's, never copied by hand.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

function source() {
  const entry = require.resolve('ai');
  const text = readFileSync(join(dirname(entry), 'index.js'), 'utf8');
  const marker = 'const uiMessageChunkSchema = lazySchema(() => zodSchema$1(';
  const start = text.indexOf(marker);
  const end = text.indexOf('function isDataUIMessageChunk', start);
  if (start < 0 || end < 0) throw new Error('uiMessageChunkSchema not found in the installed ai package');
  const body = text.slice(start + marker.length, end).trim();
  // body is `z$1.union([...])` followed by the closing `));` of zodSchema and lazySchema.
  return body.replace(/\)\);\s*$/, '');
}

// A stand-in for zod: every call chains, `looseObject` and `literal` record what they are given.
function recorder() {
  const anything = new Proxy(function () {}, {
    get: (_target, name) => (name === 'looseObject' ? (shape) => ({ shape }) : name === 'literal' ? (value) => ({ literal: value }) : name === 'union' ? (options) => ({ options }) : anything),
    apply: () => anything,
  });
  return anything;
}

export function chunkFields() {
  const z = recorder();
  const evaluate = new Function('z$1', 'providerMetadataSchema$1', 'citationSchema', 'toolMetadataSchema$1', 'jsonValueSchema', `return ${source()};`);
  const union = evaluate(z, z, z, z, z);
  const fields = {};
  for (const option of union.options) {
    const type = option.shape.type;
    const name = typeof type?.literal === 'string' ? type.literal : 'data-*';
    fields[name] = Object.keys(option.shape);
  }
  if (!fields.start || !fields.finish || !fields['data-*'] || Object.keys(fields).length < 20) {
    throw new Error(`could not read the chunk fields: ${JSON.stringify(fields)}`);
  }
  return fields;
}

export function unknownFields(chunk, fields) {
  const type = typeof chunk.type === 'string' && chunk.type.startsWith('data-') ? 'data-*' : chunk.type;
  const allowed = fields[type];
  if (allowed === undefined) return [`unknown chunk type ${JSON.stringify(chunk.type)}`];
  return Object.keys(chunk).filter((key) => !allowed.includes(key)).map((key) => `${chunk.type} has no field ${key}`);
}
