import { GetObjectCommand, PutObjectCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { expect } from 'chai';
import { s3ClientFor } from '../../src/controller/store/s3/s3-client.js';
import { S3Presigner } from '../../src/controller/store/s3/s3-presigner.js';

describe('presigning S3 requests without the SDK\'s per-URL machinery', () => {
  const signingDate = new Date('2026-12-02T03:04:05Z');
  const checksum = Buffer.alloc(32, 7).toString('base64');
  const sdkOptions = { expiresIn: 900, signingDate, signableHeaders: new Set(['content-length']), unhoistableHeaders: new Set(['x-amz-checksum-sha256', 'x-amz-meta-cairn-encoding']) };
  const places = [
    { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'cairn-backups', forcePathStyle: true },
    { endpoint: 'https://objects.example.com', region: 'eu-central-1', bucket: 'fleet', forcePathStyle: false },
    { endpoint: 'https://objects.example.com:8443', region: 'auto', bucket: 'fleet.backups', forcePathStyle: false },
  ];

  for (const place of places) {
    it(`gives the URL getSignedUrl gives, byte for byte (${place.endpoint}, bucket ${place.bucket})`, async () => {
      const client = s3ClientFor({ ...place, prefix: '', accessKeyId: 'AKIDEXAMPLE' }, 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY');
      const presigner = new S3Presigner(client, place.bucket);
      const key = 'tenant one/0190a0a0-0000-7000-8000-000000000001/blobs/ab+c(d)*';
      const sdk = [
        await getSignedUrl(client, new PutObjectCommand({ Bucket: place.bucket, Key: key, ContentLength: 5, ChecksumSHA256: checksum, Metadata: { 'cairn-encoding': 'identity' } }), sdkOptions),
        await getSignedUrl(client, new UploadPartCommand({ Bucket: place.bucket, Key: key, UploadId: 'up/load+id=', PartNumber: 3, ContentLength: 8_388_608 }), sdkOptions),
        await getSignedUrl(client, new GetObjectCommand({ Bucket: place.bucket, Key: key }), { expiresIn: 600, signingDate }),
      ];
      const ours = [
        await presigner.presign({ method: 'PUT', operation: 'PutObject', key, expiresIn: 900, signingDate, headers: { 'content-length': '5', 'x-amz-checksum-sha256': checksum, 'x-amz-meta-cairn-encoding': 'identity' } }),
        await presigner.presign({ method: 'PUT', operation: 'UploadPart', key, expiresIn: 900, signingDate, query: { partNumber: '3', uploadId: 'up/load+id=' }, headers: { 'content-length': '8388608' } }),
        await presigner.presign({ method: 'GET', operation: 'GetObject', key, expiresIn: 600, signingDate }),
      ];
      expect(ours).to.deep.equal(sdk);
      client.destroy();
    });
  }
});
