// Human in the loop through the SDK's own client: @ai-sdk/react's Chat over 127.0.0.1 answers
// what the run waits for (addToolApprovalResponse, addToolOutput) and sends automatically, as an
// app would. Each flow reports the messages, every exchange, and what replays and forgeries got.
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  validateUIMessages,
} from 'ai';
import { Chat } from '@ai-sdk/react';
import { checkFrames, plain, readJob, recordingFetch, waitFor, writeResult } from './common.mjs';

function newChat(flow, exchanges, extra = {}) {
  const errors = [];
  const chat = new Chat({
    id: flow.chatId,
    transport: new DefaultChatTransport({ api: flow.url, fetch: recordingFetch(exchanges) }),
    onError: (error) => errors.push(String(error.message)),
    ...extra,
  });
  return { chat, errors };
}

const settled = (chat) => chat.status === 'ready' || chat.status === 'error';

async function settle(chat, exchanges, count) {
  await waitFor(() => exchanges.length >= count && settled(chat), `request ${count} to settle`);
}

function toolParts(chat) {
  return chat.lastMessage.parts.filter((p) => p.type.startsWith('tool-'));
}

async function post(url, body) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
}

async function report(chat, errors, exchanges, extra = {}) {
  let validation = null;
  try {
    await validateUIMessages({ messages: chat.messages });
  } catch (error) {
    validation = String(error.message);
  }
  const frames = [];
  for (const exchange of exchanges) frames.push(exchange.text ? await checkFrames(await exchange.text) : null);
  return {
    messages: plain(chat.messages),
    status: chat.status,
    errors,
    validation,
    requests: exchanges.map((e) => e.request),
    statuses: exchanges.map((e) => e.status),
    frameProblems: frames.flatMap((f) => (f ? f.problems : [])),
    chunks: frames.map((f) => (f ? f.chunks : [])),
    ...extra,
  };
}

// Approve (or deny) the first approval request; then replay the answering request and forge one.
async function approval(flow) {
  const exchanges = [];
  const { chat, errors } = newChat(flow, exchanges, { sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
  await chat.sendMessage({ text: flow.prompt });
  await settle(chat, exchanges, 1);
  const asked = toolParts(chat).find((p) => p.state === 'approval-requested');
  if (!asked) return report(chat, errors, exchanges, { asked: null });
  const paused = plain(chat.lastMessage);
  let forged = null;
  if (flow.forgeFirst) {
    const body = structuredClone(exchanges[0].request);
    const message = structuredClone(paused);
    for (const part of message.parts) if (part.approval?.id === asked.approval.id) Object.assign(part, { state: 'approval-responded', approval: { id: 'approval_forged', approved: true } });
    body.messages = [...body.messages, message];
    forged = await post(flow.url, body);
  }
  await chat.addToolApprovalResponse({ id: asked.approval.id, approved: flow.approved, reason: flow.reason });
  await settle(chat, exchanges, 2);
  const replayed = await post(flow.url, exchanges[1].request);
  return report(chat, errors, exchanges, { asked: plain(asked), paused, forged, replayed });
}

// A tool without execute on the server: the browser runs it in onToolCall and supplies the output.
async function clientTool(flow) {
  const exchanges = [];
  let chat;
  const calls = [];
  const made = newChat(flow, exchanges, {
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    onToolCall: async ({ toolCall }) => {
      if (toolCall.toolName !== flow.tool) return;
      calls.push(plain(toolCall));
      chat.addToolOutput({ tool: flow.tool, toolCallId: toolCall.toolCallId, output: flow.output });
    },
  });
  chat = made.chat;
  await chat.sendMessage({ text: flow.prompt });
  await settle(chat, exchanges, 2);
  return report(chat, made.errors, exchanges, { calls });
}

// A suspended call (or a card) answered with addToolOutput once its data part shows up.
async function answerData(flow) {
  const exchanges = [];
  const { chat, errors } = newChat(flow, exchanges, { sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls });
  await chat.sendMessage({ text: flow.prompt });
  await settle(chat, exchanges, 1);
  const shown = chat.lastMessage.parts.find((p) => p.type === flow.dataPart);
  if (!shown) return report(chat, errors, exchanges, { shown: null });
  const output = flow.answer === 'card' ? { cardId: shown.data.card.cardId, buttonId: flow.buttonId } : flow.output;
  const paused = plain(chat.lastMessage);
  let refused = null;
  if (flow.refusedOutput) {
    // Data the tool's resume schema refuses: the run stays paused, the call waits again.
    await chat.addToolOutput({ tool: shown.data.toolName, toolCallId: shown.data.toolCallId, output: flow.refusedOutput });
    await settle(chat, exchanges, 2);
    refused = plain(chat.lastMessage);
  }
  await chat.addToolOutput({ tool: shown.data.toolName, toolCallId: shown.data.toolCallId, output });
  await settle(chat, exchanges, flow.refusedOutput ? 3 : 2);
  const replayed = await post(flow.url, exchanges[exchanges.length - 1].request);
  return report(chat, errors, exchanges, { shown: plain(shown), paused, refused, replayed });
}

const FLOWS = { approval, clientTool, answerData };

const job = await readJob();
const results = {};
for (const flow of job.flows) results[flow.id] = await FLOWS[flow.kind](flow);
writeResult(results);
