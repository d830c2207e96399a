// Shared by the harness scripts: reading the job, recording what went over the wire, checking frames.
import { asSchema, uiMessageChunkSchema } from 'ai';
import { chunkFields, unknownFields } from './chunk-fields.mjs';

const FIELDS = chunkFields();
const CHUNK_SCHEMA = asSchema(uiMessageChunkSchema);

export async function readJob() {
  let text = '';
  for await (const piece of process.stdin) text += piece;
  return JSON.parse(text);
}

export function writeResult(result) {
  process.stdout.write(JSON.stringify(result));
}

// A fetch that keeps each exchange: the request body, the status, the headers and the raw response text.
export function recordingFetch(exchanges) {
  return async (url, init) => {
    const response = await fetch(url, init);
    const exchange = { request: JSON.parse(init.body), status: response.status, headers: Object.fromEntries(response.headers) };
    exchanges.push(exchange);
    if (!response.body) return response;
    const [forClient, forRecord] = response.body.tee();
    exchange.text = new Response(forRecord).text();
    return new Response(forClient, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

// The SSE body checked frame by frame: `data: {json}` frames, then `data: [DONE]`; every chunk
// valid for the SDK's own schema and free of fields the schema does not name.
export async function checkFrames(text) {
  const problems = [];
  const chunks = [];
  const frames = text.split('\n\n');
  if (frames.pop() !== '') problems.push('the body does not end with a blank line');
  if (frames[frames.length - 1] !== 'data: [DONE]') problems.push('the last frame is not data: [DONE]');
  for (const frame of frames.slice(0, -1)) {
    if (!frame.startsWith('data: ') || frame.includes('\n')) {
      problems.push(`not a single data: line: ${frame.slice(0, 80)}`);
      continue;
    }
    const chunk = JSON.parse(frame.slice('data: '.length));
    chunks.push(chunk);
    const checked = await CHUNK_SCHEMA.validate(chunk);
    if (!checked.success) problems.push(`invalid chunk ${JSON.stringify(chunk).slice(0, 200)}: ${checked.error.message.slice(0, 300)}`);
    problems.push(...unknownFields(chunk, FIELDS));
  }
  return { problems, chunks };
}

export async function waitFor(condition, what, timeoutMs = 20000) {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function plain(value) {
  return JSON.parse(JSON.stringify(value ?? null));
}
