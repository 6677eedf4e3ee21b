/// A response interceptor that wants the request head as libcurl sent it (`RawResponse.sentHeaders`),
/// which costs libcurl's verbose mode on the transfer: a pipeline asks for it only when one of
/// its response interceptors is one (`SendPipeline.keepsSentHead`).
protocol RecordsSentRequestHead {}
