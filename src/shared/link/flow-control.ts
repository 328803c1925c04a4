/**
 * The HTTP/2 flow-control window both ends of the link grant, per stream and per connection.
 * HTTP/2 starts at 64 KiB, so a 1 MiB file chunk crossed in sixteen window round trips, each
 * waiting on the receiver's event loop: a migration's copy waited on those, not on the wire.
 * The link's own requests bound what is in flight (a copy asks for at most two ranges of a file
 * and writes one chunk of it at a time), so a wide window lets that through at once; it is an
 * allowance per connection, not memory set aside.
 */
export const linkWindowBytes = 16 * 1024 * 1024;
