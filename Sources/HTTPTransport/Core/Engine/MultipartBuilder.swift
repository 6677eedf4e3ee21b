import CCurl
import Foundation

/// Builds a libcurl mime structure: file parts are streamed from disk by libcurl.
enum MultipartBuilder {
    static func build(_ parts: [MultipartPart], on handle: EasyHandle, url: String) throws(HTTPTransportError) -> OpaquePointer {
        guard let mime = curl_mime_init(handle.curl) else {
            throw HTTPTransportError(code: .other, message: "libcurl could not create a multipart body.", url: url)
        }
        do throws(HTTPTransportError) {
            for part in parts {
                guard let item = curl_mime_addpart(mime) else {
                    throw HTTPTransportError(code: .other, message: "libcurl could not add a multipart part.", url: url)
                }
                try check(curl_mime_name(item, part.name), url: url)
                switch part.content {
                case .data(let data):
                    let code = data.withUnsafeBytes { bytes in
                        curl_mime_data(item, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
                    }
                    try check(code, url: url)
                case .file(let fileURL):
                    if let problem = UploadFile.problem(with: fileURL) {
                        throw HTTPTransportError(code: .fileIO, message: "Cannot read the file to upload (\(problem)): \(fileURL.path)",
                                                 url: url)
                    }
                    try check(curl_mime_filedata(item, fileURL.path), url: url)
                }
                if let fileName = part.fileName { try check(curl_mime_filename(item, fileName), url: url) }
                if let mimeType = part.mimeType { try check(curl_mime_type(item, mimeType), url: url) }
            }
        } catch {
            curl_mime_free(mime)
            throw error
        }
        return mime
    }

    private static func check(_ code: CURLcode, url: String) throws(HTTPTransportError) {
        guard code == CURLE_OK else {
            throw HTTPTransportError(code: .other, message: "Building the multipart body failed: \(String(cString: curl_easy_strerror(code)))",
                                     url: url, curlCode: Int(code.rawValue))
        }
    }
}
