// A small useChat page for toolwire's UI bridge: streamed text, tool calls with their output,
// images the model was shown, approvals, suspensions and warnings. Bundled by build.mjs.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const DEMO_PROMPT = "What's the weather in Paris? Draw me the temperature chart too.";

// Images among what the model read (toolwire sends it as `resultProviderMetadata.toolwire.modelOutput`).
function images(part) {
  const output = part.resultProviderMetadata?.toolwire?.modelOutput;
  if (output?.type !== 'content') return [];
  return output.value.filter((item) => item.type === 'image-data').map((item) => `data:${item.mediaType};base64,${item.data}`);
}

function ToolPart({ part, onAnswer }) {
  const name = part.type.slice('tool-'.length);
  return (
    <div className="tool" data-tool={name} data-state={part.state}>
      <strong>{name}</strong> <em>{part.state}</em>
      <pre>input: {JSON.stringify(part.input)}</pre>
      {part.state === 'output-available' && <pre className="output">output: {JSON.stringify(part.output).slice(0, 200)}</pre>}
      {part.state === 'output-error' && <pre className="error">error: {part.errorText}</pre>}
      {images(part).map((src) => <img key={src} className="chart" alt={`${name} image`} src={src} />)}
      {part.state === 'approval-requested' && (
        <div>
          <button onClick={() => onAnswer({ id: part.approval.id, approved: true })}>Approve</button>{' '}
          <button onClick={() => onAnswer({ id: part.approval.id, approved: false, reason: 'Denied in the demo' })}>Deny</button>
        </div>
      )}
    </div>
  );
}

function Part({ part, onAnswer }) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type === 'reasoning') return <p className="reasoning"><em>{part.text}</em></p>;
  if (part.type.startsWith('tool-')) return <ToolPart part={part} onAnswer={onAnswer} />;
  if (part.type === 'data-warning') return <p className="warning">⚠ {part.data.feature}: {part.data.action}</p>;
  if (part.type === 'data-tool-suspended') return <p className="suspended">⏸ {JSON.stringify(part.data.payload)}</p>;
  return null;
}

function App() {
  const [input, setInput] = useState(DEMO_PROMPT);
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const submit = (event) => {
    event.preventDefault();
    sendMessage({ text: input });
    setInput('');
  };
  return (
    <main>
      {messages.map((message) => (
        <div key={message.id} className={`message ${message.role}`} data-role={message.role}>
          {message.parts.map((part, index) => <Part key={index} part={part} onAnswer={addToolApprovalResponse} />)}
          {message.metadata?.finishReason && !message.metadata.paused && (
            <p className="finished">finished: {message.metadata.finishReason} · {message.metadata.usage?.totalTokens ?? '?'} tokens</p>
          )}
        </div>
      ))}
      {error && <p className="error">{error.message}</p>}
      <form onSubmit={submit}>
        <input value={input} onChange={(event) => setInput(event.target.value)} aria-label="prompt" />
        <button type="submit" disabled={status !== 'ready'}>Send</button>
      </form>
      <p className="status" data-status={status}>status: {status}</p>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
