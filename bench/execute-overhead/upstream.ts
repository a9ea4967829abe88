/**
 * The local upstream of the execute-overhead benchmark: answers Harvest's `GET /v2/users` at once with
 * one page of 50 users (the last page), like a vendor on the same machine. Prints its URL.
 */
import { createServer } from 'node:http';

const users = Array.from({ length: 50 }, (_, i) => ({
  id: 1000 + i,
  first_name: `First${i}`,
  last_name: `Last${i}`,
  email: `user${i}@example.com`,
  timezone: 'Europe/Paris',
  is_contractor: false,
  is_active: true,
  weekly_capacity: 126_000,
  roles: ['Engineer'],
  access_roles: ['member'],
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-06-01T00:00:00Z',
}));
const page = JSON.stringify({
  users,
  per_page: 100,
  total_pages: 1,
  total_entries: users.length,
  next_page: null,
  previous_page: null,
  page: 1,
  links: {
    first: 'https://api.harvestapp.com/v2/users?page=1&per_page=100',
    next: null,
    previous: null,
    last: 'https://api.harvestapp.com/v2/users?page=1&per_page=100',
  },
});

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(page) });
  response.end(page);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
});
