/**
 * The HTTP/2 flow-control window both ends of the link grant, per stream and per connection.
 * HTTP/2 starts at 64 KiB, so a 1 MiB file chunk crossed in sixteen window round trips, each
 * waiting on the receiver's event loop: a migration's copy waited on those, not on the wire.
 * The link's own requests bound what is in flight (a copy asks for its next range only once it
 * has written the last), so a wide window lets that much through at once without holding more.
 */
export const linkWindowBytes = 16 * 1024 * 1024;
