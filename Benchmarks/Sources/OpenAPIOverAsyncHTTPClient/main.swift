// openapi.sh: the generated client over swift-openapi-async-http-client's AsyncHTTPClientTransport
// (its default: HTTPClient.shared).
import OpenAPIAsyncHTTPClient
import OpenAPIBench

await runOpenAPIBenchmark(client: "AsyncHTTPClientTransport", transport: AsyncHTTPClientTransport())
