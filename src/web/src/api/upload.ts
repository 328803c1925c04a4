import { apiUrl, problemOf } from './http';
import { ApiProblem } from './problem';

/** Bytes of the body sent so far, of `total`. */
export type UploadProgressListener = (sent: number, total: number) => void;

/**
 * PUT of a raw body, like `request`, but reporting how much of it has been sent. fetch reports no
 * upload progress (a streamed body would need HTTP/2 in Chromium and would drop the Content-Length
 * the Controller checks before reading); XMLHttpRequest does. Resolves with the parsed JSON answer
 * (undefined for an empty one), rejects with an ApiProblem.
 */
export function putWithProgress<T = void>(path: string, query: object, body: Blob, onProgress: UploadProgressListener): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', apiUrl(path, query));
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.responseType = 'blob';
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : body.size);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        const json = (xhr.getResponseHeader('content-type') ?? '').includes('json');
        void (json ? (xhr.response as Blob).text().then((text) => JSON.parse(text) as T) : Promise.resolve(undefined as T)).then(resolve, reject);
        return;
      }
      // The answer is read as fetch's would be, so a refusal becomes the same problem.
      const answer = new Response(xhr.response as Blob, { status: xhr.status, statusText: xhr.statusText, headers: { 'retry-after': xhr.getResponseHeader('retry-after') ?? '' } });
      void problemOf(answer).then(reject);
    };
    xhr.onerror = () => reject(new ApiProblem({ type: 'about:blank', title: 'The Controller could not be reached.', status: 0, code: 'network' }));
    xhr.send(body);
  });
}
