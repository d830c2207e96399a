// Conversations of several requests against one endpoint, driven as an app would drive them.
//
// `chat` flows use @ai-sdk/react's Chat: each step sends a message, regenerates, answers a tool
// (addToolOutput with an output or an error, addToolApprovalResponse), or stops the stream once a
// part shows up; the chat settles after each step. `stream` flows use DefaultChatTransport and
// readUIMessageStream by hand, keeping the UI messages themselves. Each flow reports the final
// messages, a snapshot after each step, every exchange and whether the SDK accepted it all.
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  validateUIMessages,
} from 'ai';
import { Chat } from '@ai-sdk/react';
import { checkFrames, plain, readJob, recordingFetch, waitFor, writeResult } from './common.mjs';

const AUTOMATIC = {
  approvals: lastAssistantMessageIsCompleteWithApprovalResponses,
  toolCalls: lastAssistantMessageIsCompleteWithToolCalls,
};

async function validation(messages) {
  try {
    await validateUIMessages({ messages });
    return null;
  } catch (error) {
    return String(error.message);
  }
}

// Per exchange: the request body, the status, the frame problems and the chunks (a body the
// client stopped reading is checked as far as it went).
async function exchangesReport(exchanges) {
  const frames = [];
  for (const exchange of exchanges) {
    const text = exchange.text ? await exchange.text.catch(() => null) : null;
    frames.push(text == null ? null : await checkFrames(text));
  }
  return {
    requests: exchanges.map((e) => e.request),
    statuses: exchanges.map((e) => e.status),
    frameProblems: frames.map((f) => (f ? f.problems : [])),
    chunks: frames.map((f) => (f ? f.chunks : [])),
  };
}

const settled = (chat) => chat.status === 'ready' || chat.status === 'error';

function waitingPart(chat, tool, state) {
  const message = chat.lastMessage;
  return message?.parts.find((p) => p.type === `tool-${tool}` && p.state === state);
}

async function chatStep(chat, step, exchanges) {
  const before = exchanges.length;
  if (step.send !== undefined) {
    await chat.sendMessage({ text: step.send, ...(step.files ? { files: step.files } : {}), ...(step.metadata ? { metadata: step.metadata } : {}) });
  } else if (step.regenerate) {
    const messageId = step.regenerate.messageIndex === undefined ? undefined : chat.messages[step.regenerate.messageIndex].id;
    await chat.regenerate(messageId === undefined ? {} : { messageId });
  } else if (step.output) {
    const part = waitingPart(chat, step.output.tool, 'input-available');
    if (!part) throw new Error(`no ${step.output.tool} call waits for an output`);
    const answer = step.output.errorText === undefined
      ? { tool: step.output.tool, toolCallId: part.toolCallId, output: step.output.output }
      : { state: 'output-error', tool: step.output.tool, toolCallId: part.toolCallId, errorText: step.output.errorText };
    await chat.addToolOutput(answer);
  } else if (step.approve) {
    const part = waitingPart(chat, step.approve.tool, 'approval-requested');
    if (!part) throw new Error(`no ${step.approve.tool} call waits for approval`);
    await chat.addToolApprovalResponse({ id: part.approval.id, approved: step.approve.approved, reason: step.approve.reason });
  } else if (step.stopWhen) {
    const sending = chat.sendMessage({ text: step.stopWhen.send });
    await waitFor(() => chat.lastMessage?.parts.some((p) => p.type === step.stopWhen.part), `a ${step.stopWhen.part} part`);
    await chat.stop();
    await sending;
  }
  if (step.expectRequest !== false) await waitFor(() => exchanges.length > before, 'the request');
  await waitFor(() => settled(chat) && exchanges.every((e) => e.text === undefined || e.done), 'the chat to settle');
}

async function chatFlow(flow) {
  const exchanges = [];
  const errors = [];
  const fetch = recordingFetch(exchanges);
  const tracked = async (url, init) => {
    const response = await fetch(url, init);
    const exchange = exchanges[exchanges.length - 1];
    const done = () => (exchange.done = true);
    if (exchange.text) exchange.text.then(done, done);
    return response;
  };
  const chat = new Chat({
    id: flow.chatId,
    transport: new DefaultChatTransport({ api: flow.url, fetch: tracked }),
    onError: (error) => errors.push(String(error.message)),
    ...(flow.messages ? { messages: flow.messages } : {}),
    ...(flow.sendAutomatically ? { sendAutomaticallyWhen: AUTOMATIC[flow.sendAutomatically] } : {}),
  });
  const snapshots = [];
  for (const step of flow.steps) {
    await chatStep(chat, step, exchanges);
    snapshots.push({ status: chat.status, error: chat.error ? String(chat.error.message) : null, messages: plain(chat.messages) });
  }
  return {
    messages: plain(chat.messages),
    status: chat.status,
    errors,
    snapshots,
    validation: await validation(chat.messages),
    ...(await exchangesReport(exchanges)),
  };
}

// readUIMessageStream by hand: the app keeps the messages, posts them, and reads each reply into
// a new assistant message (or, with `continues`, into the last one).
async function streamFlow(flow) {
  const exchanges = [];
  const errors = [];
  const transport = new DefaultChatTransport({ api: flow.url, fetch: recordingFetch(exchanges) });
  const messages = [];
  for (const [index, step] of flow.steps.entries()) {
    messages.push({ id: `user-${index}`, role: 'user', parts: [{ type: 'text', text: step.send }] });
    const stream = await transport.sendMessages({
      chatId: flow.chatId,
      messages,
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    let reply = null;
    for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push(String(error.message ?? error)) })) {
      reply = snapshot;
    }
    if (reply) messages.push(plain(reply));
  }
  return { messages, errors, validation: await validation(messages), ...(await exchangesReport(exchanges)) };
}

const FLOWS = { chat: chatFlow, stream: streamFlow };

const job = await readJob();
const results = {};
for (const flow of job.flows) {
  try {
    results[flow.id] = await FLOWS[flow.kind](flow);
  } catch (error) {
    results[flow.id] = { harnessError: String(error.stack ?? error) };
  }
}
writeResult(results);
