// SSE bodies toolwire.ui made from recorded provider responses, read by the SDK itself: every
// frame checked against `uiMessageChunkSchema` (and for unknown fields), the chunks read into UI
// messages by `readUIMessageStream`, the message validated by `validateUIMessages`.
import { readUIMessageStream, validateUIMessages } from 'ai';
import { checkFrames, plain, readJob, writeResult } from './common.mjs';

async function read(item) {
  const { problems, chunks } = await checkFrames(item.text);
  const errors = [];
  const ids = new Set();
  let message = null;
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  try {
    for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push(String(error.message ?? error)), terminateOnError: false })) {
      message = snapshot;
      ids.add(snapshot.id);
    }
  } catch (error) {
    errors.push(String(error.message ?? error));
  }
  let validation = null;
  if (message) {
    try {
      await validateUIMessages({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'x' }] }, message] });
    } catch (error) {
      validation = String(error.message);
    }
  }
  return { problems, errors, messageIds: [...ids], validation, parts: plain(message?.parts ?? []) };
}

const job = await readJob();
const results = {};
for (const item of job.items) results[item.id] = await read(item);
writeResult(results);
