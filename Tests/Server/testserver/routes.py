"""Handler: HandlerBase with every route module's routes mixed in, and the combined route tables.

A new route module goes in ROUTE_MODULES (its class becomes one of Handler's bases); a route
added to an existing module goes at the end of that module's EXACT_ROUTES or PREFIX_ROUTES.
"""

from . import (auth_routes, cache_routes, echo_routes, event_routes, fault_routes, feature_routes, stream_routes,
               transfer_routes)
from .handler import HandlerBase

ROUTE_MODULES = [
    (echo_routes, echo_routes.EchoRoutes),
    (fault_routes, fault_routes.FaultRoutes),
    (transfer_routes, transfer_routes.TransferRoutes),
    (auth_routes, auth_routes.AuthRoutes),
    (cache_routes, cache_routes.CacheRoutes),
    (feature_routes, feature_routes.FeatureRoutes),
    (stream_routes, stream_routes.StreamRoutes),
    (event_routes, event_routes.EventRoutes),
]


def combined_tables(modules):
    """The modules' tables as one; refuses a path two modules claim, and a prefix that starts
    with another (so which module comes first never changes where a request goes)."""
    exact, prefixes = {}, []
    for module, _ in modules:
        for path, route in module.EXACT_ROUTES.items():
            if path in exact:
                raise ValueError("route %s is defined twice" % path)
            exact[path] = route
        prefixes += module.PREFIX_ROUTES
    for prefix, _ in prefixes:
        for other, _ in prefixes:
            if other != prefix and other.startswith(prefix):
                raise ValueError("prefix %s shadows %s" % (prefix, other))
    return exact, prefixes


class Handler(*(routes for _, routes in ROUTE_MODULES), HandlerBase):
    exact_routes, prefix_routes = combined_tables(ROUTE_MODULES)
