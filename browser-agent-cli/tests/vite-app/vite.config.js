// The test starts Vite on a port of its choosing: `vite --port N --strictPort --host 127.0.0.1`,
// and a second time over https with a self-signed certificate (TLS_KEY and TLS_CERT name its
// files), as `server.https` with mkcert's is used. One API route that fails, as a broken backend
// would.
import { readFileSync } from 'node:fs';

const https = process.env.TLS_KEY
  ? { key: readFileSync(process.env.TLS_KEY), cert: readFileSync(process.env.TLS_CERT) }
  : undefined;

export default {
  clearScreen: false,
  server: { strictPort: true, https },
  plugins: [
    {
      name: 'failing-api',
      configureServer(server) {
        server.middlewares.use('/api/items', (_req, res) => {
          res.statusCode = 500;
          res.setHeader('content-type', 'application/json');
          res.end('{"error":"the database is down"}');
        });
      },
    },
  ],
};
