/** A small valid manifest; each test breaks one thing in it. */
export const VALID = `connector_type: acme
display_name: Acme
definition_id: 0b7e2c44-5d7a-4e55-9b1a-6c3f0e9d2a11
icon_url: https://acme.example/icon.png
support_level: community
category: testing
description: A connector used by the generator tests.
docs:
  - { title: Acme API, url: "https://acme.example/docs" }
config:
  subdomain: { description: Tenant, pattern: '^[a-z]+$' }
base_url: https://{{config.subdomain}}.acme.example/api
headers:
  X-Account: "{{credentials.account}}"
auth:
  - type: bearer
    option_title: Token
    token: "{{credentials.token}}"
    fields:
      token: { description: API token }
      account: { description: Account id, secret: false }
pagination:
  pages: { style: cursor, cursor_param: cursor, next_cursor: body.next, block: { next: body.next } }
check: { entity: widgets, action: list, params: { cursor: start }, doc: "https://acme.example/docs" }
entities:
  widgets:
    description: Widgets.
    record:
      fields:
        id: integer
        name: string
    actions:
      list:
        method: GET
        path: /widgets
        records_path: widgets
        pagination: pages
        params:
          cursor: { in: query, schema: { type: string } }
      get:
        method: GET
        path: /widgets/{id}
        params:
          id: { in: path, required: true, schema: { type: integer } }
`;
