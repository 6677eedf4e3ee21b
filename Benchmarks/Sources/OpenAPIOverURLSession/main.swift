// openapi.sh: the generated client over swift-openapi-urlsession's URLSessionTransport (its
// default: URLSession.shared, FoundationNetworking on Linux).
import OpenAPIBench
import OpenAPIURLSession

await runOpenAPIBenchmark(client: "URLSessionTransport", transport: URLSessionTransport())
