import Type from 'typebox';

/** What a user types to prove the second factor: a 6-digit code of the app, or one of the recovery codes. */
export const TotpCode = Type.String({
  minLength: 1, maxLength: 64,
  description: 'The 6-digit code the authenticator app shows now, or an unused recovery code (each works once).',
});

export const TotpEnrolment = Type.Object({
  secret: Type.String({ description: 'The seed in base32, for typing into an authenticator app.' }),
  otpauthUri: Type.String({ description: '`otpauth://totp/...` with the seed (issuer Cairn, label the username), for a QR code.' }),
});

export const TotpCodeBody = Type.Object({
  code: TotpCode,
}, { additionalProperties: false });

export const ConfirmTotp = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 64, description: 'The 6-digit code the authenticator app shows now.' }),
  password: Type.Optional(Type.String({
    minLength: 1, maxLength: 256,
    description: 'The account\'s current password: needed for an account that has one, so an open session alone cannot tie the account to another phone. '
      + 'An account made by single sign-on without a password leaves it out and confirms within 10 minutes of signing in with the provider (in that session).',
  })),
}, { additionalProperties: false });

export const TotpRecoveryCodes = Type.Object({
  recoveryCodes: Type.Array(Type.String(), {
    minItems: 10, maxItems: 10,
    description: 'Ten single-use codes for signing in without the app; shown only in this answer (Cairn keeps their hashes).',
  }),
});
