/** `body.tasks[1].command: ` → `tasks[1].command`: the API names an item of a list by its index in brackets. */
const fieldPattern = /^(?:body|query|path)\.([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+|\[\d+\])*):\s*/;

/** The request field an API detail is about: `body.network.port: must be <= 65535` → `network.port`. */
export function problemField(detail: string | undefined): string | undefined {
  return detail ? fieldPattern.exec(detail)?.[1] : undefined;
}

/** The detail without its field, for showing next to the field itself: `must be <= 65535`. */
export function withoutField(detail: string): string {
  const match = fieldPattern.exec(detail);
  return match ? detail.slice(match[0].length) : detail;
}
