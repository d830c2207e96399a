// Each case is one whole agent run served by toolwire.ui, read three ways by the real AI SDK:
// DefaultChatTransport + readUIMessageStream, @ai-sdk/react's Chat, and (when asked) useChat
// rendered with React. The result says what the SDK made of it.
import { DefaultChatTransport, readUIMessageStream, validateUIMessages } from 'ai';
import { Chat } from '@ai-sdk/react';
import { checkFrames, plain, readJob, recordingFetch, waitFor, writeResult } from './common.mjs';

function userMessage(prompt) {
  return { id: 'user-1', role: 'user', parts: [{ type: 'text', text: prompt }] };
}

async function validation(messages) {
  try {
    await validateUIMessages({ messages });
    return null;
  } catch (error) {
    return String(error.message);
  }
}

async function viaTransport(item) {
  const exchanges = [];
  const transport = new DefaultChatTransport({ api: item.transportUrl, fetch: recordingFetch(exchanges) });
  const user = userMessage(item.prompt);
  const errors = [];
  const ids = new Set();
  let message = null;
  try {
    const stream = await transport.sendMessages({
      chatId: `${item.id}-transport`,
      messages: [user],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push(String(error.message ?? error)) })) {
      message = snapshot;
      ids.add(snapshot.id);
    }
  } catch (error) {
    errors.push(String(error.message ?? error));
  }
  const exchange = exchanges[0];
  const frames = exchange?.text ? await checkFrames(await exchange.text) : { problems: ['no response body'], chunks: [] };
  return {
    message: plain(message),
    messageIds: [...ids],
    errors,
    validation: message ? await validation([user, message]) : 'no message',
    status: exchange?.status,
    headers: exchange?.headers,
    frameProblems: frames.problems,
    chunks: frames.chunks,
  };
}

async function viaChat(item) {
  const errors = [];
  const chat = new Chat({
    id: `${item.id}-chat`,
    transport: new DefaultChatTransport({ api: item.chatUrl }),
    onError: (error) => errors.push(String(error.message)),
  });
  await chat.sendMessage({ text: item.prompt });
  await waitFor(() => chat.status === 'ready' || chat.status === 'error', 'the chat to settle');
  return {
    messages: plain(chat.messages),
    status: chat.status,
    error: chat.error ? String(chat.error.message) : null,
    errors,
    validation: await validation(chat.messages),
  };
}

async function viaUseChat(item) {
  const React = await import('react');
  const { act, create } = await import('react-test-renderer');
  const { useChat } = await import('@ai-sdk/react');
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  let latest = null;
  function Probe() {
    latest = useChat({ id: `${item.id}-use-chat`, transport: new DefaultChatTransport({ api: item.chatUrl }) });
    return null;
  }
  let renderer;
  await act(async () => {
    renderer = create(React.createElement(Probe));
  });
  await act(async () => {
    await latest.sendMessage({ text: item.prompt });
  });
  await act(async () => {
    await waitFor(() => latest.status === 'ready' || latest.status === 'error', 'useChat to settle');
  });
  const result = { messages: plain(latest.messages), status: latest.status, error: latest.error ? String(latest.error.message) : null };
  await act(async () => renderer.unmount());
  return result;
}

const job = await readJob();
const results = {};
for (const item of job.cases) {
  results[item.id] = { transport: await viaTransport(item), chat: await viaChat(item) };
  if (item.useChat) results[item.id].useChat = await viaUseChat(item);
}
writeResult(results);
