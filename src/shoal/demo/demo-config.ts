/** The config `shoal demo` writes beside its sample data: embedded defaults only, no servers. */
export const DEMO_CONFIG = `# Written by \`shoal demo\`. Embedded defaults: a SQLite registry file beside this config,
# an in-memory DuckDB per instance, no Redis, no PostgreSQL.
control_plane:
  tenant_url: sqlite:///shoal-registry.db
domains:
  - {id: sales, description: Orders and customers}
  - {id: support, description: Support tickets (a tik store)}
sources:
  - {id: shop-db, type: sqlite, path: shop.db}
  - {id: segments-csv, type: csv, path: segments.csv}
  - {id: support-tik, type: tik, path: support}
tables:
  - source_id: shop-db
    domain_id: sales
    table: customers
    columns:
      - {name: id, data_type: integer, visible_to: [admin, analyst]}
      - {name: name, data_type: varchar, visible_to: [admin, analyst]}
      - {name: email, data_type: varchar, visible_to: [admin, analyst], unmasked_to: [admin],
         mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"}
      - {name: region, data_type: varchar, visible_to: [admin, analyst]}
  - source_id: shop-db
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer, visible_to: [admin, analyst]}
      - {name: customer_id, data_type: integer, visible_to: [admin, analyst]}
      - {name: region, data_type: varchar, visible_to: [admin, analyst]}
      - {name: amount, data_type: decimal, visible_to: [admin, analyst]}
      - {name: placed_on, data_type: date, visible_to: [admin]}
  - source_id: segments-csv
    domain_id: sales
    table: customer_segments
    columns:
      - {name: customer_id, data_type: integer, visible_to: [admin, analyst]}
      - {name: segment, data_type: varchar, visible_to: [admin, analyst]}
  - source_id: support-tik
    domain_id: support
    table: tickets
    columns:
      - {name: ticket, data_type: varchar, visible_to: [admin, analyst]}
      - {name: title, data_type: varchar, visible_to: [admin, analyst]}
      - {name: process, data_type: varchar, visible_to: [admin, analyst]}
      - {name: current, data_type: "varchar[]", visible_to: [admin, analyst]}
      - {name: reached, data_type: "varchar[]", visible_to: [admin, analyst]}
  - source_id: support-tik
    domain_id: support
    table: facts
    columns:
      - {name: ticket, data_type: varchar, visible_to: [admin, analyst]}
      - {name: path, data_type: varchar, visible_to: [admin, analyst]}
      - {name: status, data_type: varchar, visible_to: [admin, analyst]}
      - {name: value, data_type: varchar, visible_to: [admin, analyst]}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales, support]}
rls_rules:
  - {table_id: customers, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`;

/** Customers with their segment, order totals and open support tickets: SQLite ⋈ CSV ⋈ tik. */
export const DEMO_QUERY = `SELECT c.name, c.email, s.segment,
       (SELECT CAST(sum(o.amount) AS numeric(12,2)) FROM sales.orders o WHERE o.customer_id = c.id) AS ordered,
       count(t.ticket) AS open_tickets
FROM sales.customers c
JOIN sales.customer_segments s ON s.customer_id = c.id
LEFT JOIN support.facts f ON f.path = 'customer.id' AND f.status = 'present' AND f.value = CAST(c.id AS VARCHAR)
LEFT JOIN support.tickets t ON t.ticket = f.ticket AND NOT (':resolved' = ANY(t.reached))
GROUP BY c.id, c.name, c.email, s.segment
ORDER BY c.id`;
