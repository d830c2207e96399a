// The Vercel AI SDK decoding the same SSE bodies as benchmarks/streaming.py: each provider's
// `doStream` reads the recorded bytes through a custom `fetch` (64 KB chunks, as from a socket)
// and the stream parts are read to the end. Prints {api: [seconds per run, ...]} as JSON.
//
// Usage: node vercel.mjs <dir with <api>.sse files> <runs>
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";

const [dir, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const CHUNK = 65536;

function fetchOf(body) {
  return async () =>
    new Response(
      new ReadableStream({
        start(controller) {
          for (let start = 0; start < body.length; start += CHUNK) {
            controller.enqueue(body.subarray(start, start + CHUNK));
          }
          controller.close();
        },
      }),
      { status: 200, headers: { "content-type": "text/event-stream" } },
    );
}

const MODELS = {
  anthropic: (fetch) => createAnthropic({ apiKey: "x", fetch })("claude-sonnet-4-6"),
  "openai-chat": (fetch) => createOpenAI({ apiKey: "x", fetch }).chat("gpt-4o"),
  "openai-responses": (fetch) => createOpenAI({ apiKey: "x", fetch }).responses("gpt-5-mini"),
  gemini: (fetch) => createGoogleGenerativeAI({ apiKey: "x", fetch })("gemini-3.1-pro-preview"),
};

const OPTIONS = {
  prompt: [{ role: "user", content: [{ type: "text", text: "write it" }] }],
  tools: [{ type: "function", name: "write", description: "Write.", inputSchema: { type: "object" } }],
};

async function once(api, body) {
  const model = MODELS[api](fetchOf(body));
  const start = process.hrtime.bigint();
  const { stream } = await model.doStream(OPTIONS);
  const reader = stream.getReader();
  let deltas = 0;
  let input = null;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === "tool-input-delta") deltas += 1;
    else if (value.type === "tool-call") input = value.input;
    else if (value.type === "error") throw new Error(`${api}: ${JSON.stringify(value.error).slice(0, 200)}`);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (input === null) throw new Error(`${api}: no tool call came out`);
  return { seconds, deltas, inputLength: input.length };
}

const results = {};
for (const api of Object.keys(MODELS)) {
  let body;
  try {
    body = readFileSync(join(dir, `${api}.sse`));
  } catch {
    continue;
  }
  await once(api, body); // warm-up: JIT and module initialisation
  results[api] = [];
  for (let i = 0; i < runs; i += 1) {
    if (global.gc) global.gc();
    const { seconds, deltas, inputLength } = await once(api, body);
    results[api].push(seconds);
    results[`${api}:deltas`] = deltas;
    results[`${api}:input`] = inputLength;
  }
}
console.log(JSON.stringify(results));
