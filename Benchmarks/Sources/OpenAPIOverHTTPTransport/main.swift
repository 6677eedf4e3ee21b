// openapi.sh: the generated client over the library's OpenAPITransport (default HTTPTransport,
// responses streamed).
import HTTPTransportOpenAPI
import OpenAPIBench

await runOpenAPIBenchmark(client: "OpenAPITransport", transport: OpenAPITransport())
