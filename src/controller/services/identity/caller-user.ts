import type { CallerUser } from '../../core/caller.js';
import type { Shared } from '../../store/collection.js';
import type { UserDoc } from '../../store/records.js';

/** The caller's user made from the stored one: copied, so a request never holds the record. */
export const callerUser = (user: Shared<UserDoc>): CallerUser => ({
  _id: user._id,
  username: user.username,
  globalAdmin: user.globalAdmin,
  globalPermissions: user.globalPermissions,
  passwordChangeRequired: user.passwordChangeRequired,
});
