"""The local test server's parts (started through ../server.py).

- common: limits, errors, logging, the state lock, query and header-text helpers
- request_parsing: multipart bodies, Cookie headers, Range headers, Accept-Encoding
- payloads: the deterministic byte pattern and gzip bombs
- handler: HandlerBase (reading requests, writing responses, dispatch)
- echo_routes, fault_routes, transfer_routes, auth_routes, cache_routes, feature_routes,
  event_routes:
  the routes, one module a concern, each with its own EXACT_ROUTES and PREFIX_ROUTES
- routes: combines those modules into Handler and its route tables
- listeners: the HTTP and HTTPS listeners
"""
