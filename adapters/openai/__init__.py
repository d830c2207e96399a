"""The OpenAI adapters: `openai-chat` (Chat Completions, also OpenAI-compatible servers) and
`openai-responses` (Responses).

Both share the strict-schema transform (`_strict`), tool entries and tool choice (`_tools`),
content-part mapping (`_parts`) and usage (`_usage`). Importing this package imports no SDK.
"""
