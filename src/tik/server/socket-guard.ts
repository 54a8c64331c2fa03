import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Bounds the open sockets of an HTTP server at `max`. When a new connection would pass it, the
 * oldest socket with no request in flight (still sending its headers, or idle between requests)
 * is closed to make room; only if every socket is busy is the newcomer refused. So a crowd of
 * slow or idle sockets can neither exhaust file descriptors nor lock out a fresh `/health`.
 */
export function guardSockets(server: Server, max: number): { readonly open: () => number } {
  // insertion order = age; value = requests in flight on the socket
  const sockets = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    if (sockets.size >= max) {
      let victim: Socket | undefined;
      for (const [s, busy] of sockets) {
        if (busy === 0) {
          victim = s;
          break;
        }
      }
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      sockets.delete(victim);
      victim.destroy();
    }
    sockets.set(socket, 0);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req, res) => {
    const s = req.socket;
    if (!sockets.has(s)) return;
    sockets.set(s, sockets.get(s)! + 1);
    res.once('close', () => {
      if (sockets.has(s)) sockets.set(s, Math.max(0, sockets.get(s)! - 1));
    });
  });
  return { open: () => sockets.size };
}
