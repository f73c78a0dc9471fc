// Node http API logging JSON lines through pino/pino-http; some routes throw, some upstream calls fail.
const http = require('http');
const pino = require('pino');
const log = pino({ level: 'debug', base: { svc: 'cart-api' } });
const httpLog = require('pino-http')({ logger: log });
const carts = new Map();
const server = http.createServer((req, res) => {
  httpLog(req, res);
  const u = new URL(req.url, 'http://x');
  const m = u.pathname.match(/^\/carts\/(\w+)$/);
  try {
    if (u.pathname === '/pricing') {
      http.get('http://127.0.0.1:8799/prices', (r) => { r.resume(); res.end('ok'); })
        .on('error', (err) => { req.log.error({ err }, 'pricing upstream unavailable'); res.statusCode = 502; res.end(); });
      return;
    }
    if (!m) { res.statusCode = 404; return res.end(); }
    const id = m[1];
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        try {
          const item = JSON.parse(body);
          const cart = carts.get(id) || []; cart.push(item); carts.set(id, cart);
          req.log.debug({ cart: id, items: cart.length }, 'item added');
          if (cart.length > 6) req.log.warn({ cart: id, items: cart.length }, 'cart above soft limit');
          res.statusCode = 201; res.end();
        } catch (err) {
          req.log.error({ err, cart: id }, 'invalid cart payload');
          res.statusCode = 400; res.end();
        }
      });
      return;
    }
    const cart = carts.get(id);
    const total = cart.reduce((s, i) => s + i.price * i.qty, 0);   // TypeError when cart missing
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id, total }));
  } catch (err) {
    req.log.error({ err }, 'unhandled error');
    res.statusCode = 500; res.end();
  }
});
server.listen(8706, () => log.info({ port: 8706 }, 'listening'));
process.on('SIGTERM', () => { log.info('SIGTERM received, closing'); server.close(() => { log.info('closed'); process.exit(0); }); });
