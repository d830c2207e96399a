// useChat's resume: a Chat that has sent a message asks the endpoint for a stream to resume
// (DefaultChatTransport.reconnectToStream: GET {api}/{chatId}/stream) and reports what it got.
import { DefaultChatTransport } from 'ai';
import { Chat } from '@ai-sdk/react';
import { readJob, waitFor, writeResult } from './common.mjs';

const job = await readJob();
const statuses = [];
const fetchRecording = async (url, init) => {
  const response = await fetch(url, init);
  statuses.push({ method: init?.method ?? 'GET', path: new URL(url).pathname, status: response.status });
  return response;
};
const errors = [];
const chat = new Chat({
  id: job.chatId,
  transport: new DefaultChatTransport({ api: job.url, fetch: fetchRecording }),
  onError: (error) => errors.push(String(error.message ?? error)),
});
await chat.sendMessage({ text: 'Hello' });
await waitFor(() => chat.status === 'ready' || chat.status === 'error', 'the first answer');
await chat.resumeStream();
await waitFor(() => chat.status === 'ready' || chat.status === 'error', 'the resume');
writeResult({
  statuses,
  errors,
  status: chat.status,
  messages: chat.messages.map((m) => ({ role: m.role, text: m.parts.filter((p) => p.type === 'text').map((p) => p.text).join('') })),
});
