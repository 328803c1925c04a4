import type { CreateBackupDestination } from '../../api/types';
import { TextField } from '../../components/Field';
import { CheckboxField } from '../../components/Choices';

/** What the form keeps for an S3 destination (every field, empty until typed); the secret goes to the API once and is never shown again. */
export type S3Values = Required<Pick<CreateBackupDestination, 'endpoint' | 'region' | 'bucket' | 'prefix' | 'accessKeyId' | 'secretAccessKey' | 'forcePathStyle'>>;

export const emptyS3: S3Values = { endpoint: '', region: 'us-east-1', bucket: '', prefix: '', accessKeyId: '', secretAccessKey: '', forcePathStyle: false };

export const s3FieldNames = ['endpoint', 'region', 'bucket', 'prefix', 'accessKeyId', 'secretAccessKey', 'forcePathStyle'];

type Needed = 'endpoint' | 'region' | 'bucket' | 'accessKeyId' | 'secretAccessKey';

/** The fields left empty that an S3 destination needs, with what to enter. */
export function missingS3(values: S3Values): Partial<Record<Needed, string>> {
  const missing: Partial<Record<Needed, string>> = {};
  if (!/^https?:\/\/./.test(values.endpoint.trim())) missing.endpoint = 'Enter the http or https URL of the S3 API.';
  if (!values.region.trim()) missing.region = 'Enter the bucket\'s region.';
  if (!values.bucket.trim()) missing.bucket = 'Enter the bucket.';
  if (!values.accessKeyId.trim()) missing.accessKeyId = 'Enter the access key id.';
  if (!values.secretAccessKey) missing.secretAccessKey = 'Enter the secret access key.';
  return missing;
}

interface Props {
  values: S3Values;
  onChange: (values: S3Values) => void;
  error: unknown;
  local: Partial<Record<Needed, string>>;
}

/** The S3 part of the new-destination form: where the bucket is and the key the Controller signs with. */
export function S3DestinationFields({ values, onChange, error, local }: Props) {
  const set = <K extends keyof S3Values>(key: K, value: S3Values[K]) => onChange({ ...values, [key]: value });
  const text = { error, autoComplete: 'off', spellCheck: false };
  return (
    <>
      <TextField label="Endpoint" field="endpoint" {...text} localError={local.endpoint} value={values.endpoint} onChange={(e) => set('endpoint', e.target.value)}
        placeholder="https://s3.eu-west-1.amazonaws.com" hint="The S3 API's URL; for MinIO, e.g. http://minio.internal:9000. Every Node must reach it too: Agents upload and download backups themselves with requests the Controller signs." />
      <TextField label="Region" field="region" {...text} localError={local.region} value={values.region} onChange={(e) => set('region', e.target.value)} />
      <TextField label="Bucket" field="bucket" {...text} localError={local.bucket} value={values.bucket} onChange={(e) => set('bucket', e.target.value)} hint="An existing bucket." />
      <TextField label="Prefix" field="prefix" {...text} value={values.prefix} onChange={(e) => set('prefix', e.target.value)} placeholder="cairn" hint="Optional: objects go under <prefix>/<team id>/." />
      <TextField label="Access key id" field="accessKeyId" {...text} localError={local.accessKeyId} value={values.accessKeyId} onChange={(e) => set('accessKeyId', e.target.value)} />
      <TextField label="Secret access key" field="secretAccessKey" type="password" error={error} localError={local.secretAccessKey} value={values.secretAccessKey}
        onChange={(e) => set('secretAccessKey', e.target.value)} autoComplete="new-password" hint="Kept encrypted by the Controller; never shown again, never given to Nodes." />
      <CheckboxField label="Path-style requests" field="forcePathStyle" error={error} checked={values.forcePathStyle} onChange={(checked) => set('forcePathStyle', checked)}
        hint="<endpoint>/<bucket>/<key>: MinIO and most S3-compatible servers need it; AWS does not." />
    </>
  );
}
