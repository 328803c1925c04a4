import type { WebhookEventBody, webhookFormats } from '../../schemas/webhooks.js';
import { headline, isTrouble } from './event-words.js';

const red = 0xd83c3e;
const green = 0x2ea043;
/** Discord refuses a message whose content passes 2000 characters or an embed title 256. */
const cut = (line: string, max: number) => (line.length > max ? `${line.slice(0, max - 1)}…` : line);

/** The request body for one format: the event itself (`json`), Discord's webhook shape, or Slack's. */
export function deliveryBody(format: (typeof webhookFormats)[number], body: WebhookEventBody): string {
  if (format === 'json') return JSON.stringify(body);
  const line = headline(body);
  if (format === 'slack') return JSON.stringify({ text: line });
  const facts = [
    body.server ? `Server: ${body.server.name}` : null,
    body.node ? `Node: ${body.node.name}` : null,
    `Event: ${body.event}`,
  ].filter((fact): fact is string => fact !== null);
  return JSON.stringify({
    content: cut(line, 2000),
    embeds: [{ title: cut(line, 256), description: facts.join('\n'), color: isTrouble(body.event) ? red : green, timestamp: body.occurredAt }],
  });
}
