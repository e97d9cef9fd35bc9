// Server-sent events (the HTML standard's format): the `data` of each event of a body,
// read with a reader (async iteration of a ReadableStream is not in every browser).

/** The data of each event in `body`, in order; ends with the body. */
export async function* eventData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A line ends at CRLF, LF or CR; a CR at the very end may be half of a CRLF.
      const lines = buffer.split(/\r\n|\n|\r(?!$)/);
      buffer = done ? "" : (lines.pop() ?? "");
      for (const line of lines) {
        if (line === "") {
          if (data.length > 0) yield data.join("\n");
          data = [];
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        } // comments (":") and the event, id and retry fields say nothing a chunk needs
      }
      if (done) {
        if (data.length > 0) yield data.join("\n");
        return;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
