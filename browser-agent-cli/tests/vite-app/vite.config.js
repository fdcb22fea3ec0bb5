// The test starts Vite on a port of its choosing: `vite --port N --strictPort --host 127.0.0.1`.
// One API route that fails, as a broken backend would.
export default {
  clearScreen: false,
  server: { strictPort: true },
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
