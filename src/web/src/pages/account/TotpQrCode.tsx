import QRCode from 'qrcode';
import { useEffect, useRef, useState } from 'react';

/**
 * The otpauth URI as a QR code for an authenticator app to scan. Drawn on a canvas: the UI's CSP
 * (`default-src 'self'`) blocks the data: URL an <img> of it would need.
 */
export function TotpQrCode({ uri }: { uri: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [failed, setFailed] = useState<string>();
  useEffect(() => {
    if (!canvas.current) return;
    QRCode.toCanvas(canvas.current, uri, { errorCorrectionLevel: 'M', margin: 2, width: 220 }).then(
      () => setFailed(undefined),
      (e: unknown) => setFailed(e instanceof Error ? e.message : String(e)),
    );
  }, [uri]);
  return (
    <>
      <canvas ref={canvas} role="img" aria-label="QR code" className="qr-code" />
      {failed ? <p role="alert" className="problem">The QR code could not be drawn ({failed}): type the secret in instead.</p> : null}
    </>
  );
}
