import EthereumPrimitives
import Foundation
import SignerKitHTTPServer
import WalletConnectPay

/// The local service's hosted data-collection form (`GET /ic/{id}`), as the real one behaves in a wallet's
/// web view: one input per property of the schema (titles, descriptions, `required`, `pattern`, `maxLength`),
/// prefilled from the query's `prefill`, in the query's `theme`. Submitting it posts the answers as JSON
/// (`{"fields":[{"id","value"}]}`) to the same path; when the service records them, the form posts
/// `{"type":"IC_COMPLETE"}` to `window.parent`, else `{"type":"IC_ERROR","error":<the service's message>}`
/// (a payment created with ``LocalPayService/PaymentSpec/dataCollectionError`` always gets that error).
enum LocalPayCollectForm {
    /// The page for `merchant`, prefilled with `prefill`, dark when `dark`.
    static func page(merchant: String, prefill: JSONObject, dark: Bool) -> String {
        var inputs = ""
        for field in fields() {
            let value = prefill[field.id].map { $0.stringValue ?? $0.serialized } ?? ""
            inputs += input(field, value: value)
        }
        let colors = dark ? "background:#15171c;color:#eee" : "background:#fff;color:#1b1f24"
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Payment details</title>
            <meta name="viewport" content="width=device-width">
            <style>body{font-family:system-ui,sans-serif;margin:0;padding:1rem 1.5rem;\(colors)}
            h1{font-size:1.15rem}label{display:block;margin:.6rem 0 .15rem;font-weight:600}
            input[type=text],input[type=date]{width:100%;max-width:28rem;padding:.35rem;font-size:1rem}
            small{display:block;opacity:.7}.check label{display:inline;font-weight:400}
            button{margin-top:1rem;font-size:1rem;padding:.45rem 1.4rem}#result{margin-top:.75rem}</style></head>
            <body><h1>\(HTML.escape(merchant)) needs a few details</h1>
            <p>Required by the Travel Rule for this payment. Fields marked * are required.</p>
            <form id="collect" method="post">
            \(inputs)<button id="submit" type="submit">Continue</button></form>
            <p id="result" data-state="idle"></p>
            <script>
            (() => {
              const form = document.getElementById('collect');
              const result = document.getElementById('result');
              const report = (message, state, text) => {
                window.parent.postMessage(message, '*');
                result.dataset.state = state;
                result.textContent = text;
              };
              form.addEventListener('submit', (event) => {
                event.preventDefault();
                const fields = [];
                for (const element of form.elements) {
                  if (!element.name) continue;
                  if (element.type === 'checkbox') fields.push({ id: element.name, value: element.checked ? 'true' : 'false' });
                  else if (element.value !== '') fields.push({ id: element.name, value: element.value });
                }
                result.dataset.state = 'sending';
                fetch(location.pathname, {
                  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fields })
                }).then((response) => response.json().then((body) => {
                  if (response.ok) report({ type: 'IC_COMPLETE' }, 'complete', 'Thank you, your details were sent.');
                  else report({ type: 'IC_ERROR', error: body.message || 'refused' }, 'error', body.message || 'refused');
                })).catch((error) => report({ type: 'IC_ERROR', error: String(error) }, 'error', String(error)));
              });
            })();
            </script></body></html>
            """
    }

    /// One field of the form.
    struct Field {
        let id: String
        let title: String
        let description: String?
        let required: Bool
        let kind: String
        let pattern: String?
        let maxLength: Int?
    }

    /// The schema's properties in order (the field list's names when the schema is missing).
    static func fields() -> [Field] {
        guard let schema = try? JSONValue(parsing: LocalPayCatalog.collectSchemaText),
            case .object(let properties)? = schema["properties"]
        else {
            return LocalPayCatalog.collectFields.map {
                Field(
                    id: $0.id, title: $0.name, description: nil, required: $0.required, kind: $0.type, pattern: nil,
                    maxLength: nil)
            }
        }
        let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        return properties.members.map { member in
            let property = member.value
            let kind =
                property["type"]?.stringValue == "boolean"
                ? "checkbox" : property["format"]?.stringValue == "date" ? "date" : "text"
            return Field(
                id: member.key, title: property["title"]?.stringValue ?? member.key,
                description: property["description"]?.stringValue, required: required.contains(member.key),
                kind: kind, pattern: property["pattern"]?.stringValue,
                maxLength: property["maxLength"]?.stringValue.flatMap { Int($0) }
                    ?? property["maxLength"].flatMap { Int($0.serialized) })
        }
    }

    /// The markup of one input, with its label and description.
    static func input(_ field: Field, value: String) -> String {
        let name = HTML.escape(field.id)
        let mark = field.required ? " *" : ""
        var attributes = "id=\"field-\(name)\" name=\"\(name)\" type=\"\(field.kind)\""
        if field.required { attributes += " required" }
        if let pattern = field.pattern { attributes += " pattern=\"\(HTML.escape(pattern))\"" }
        if let maxLength = field.maxLength { attributes += " maxlength=\"\(maxLength)\"" }
        let help = field.description.map { "<small>\(HTML.escape($0))</small>" } ?? ""
        if field.kind == "checkbox" {
            let checked = value == "true" ? " checked" : ""
            return "<div class=\"check\"><input \(attributes) value=\"true\"\(checked)> "
                + "<label for=\"field-\(name)\">\(HTML.escape(field.title))\(mark)</label>\(help)</div>\n"
        }
        return "<label for=\"field-\(name)\">\(HTML.escape(field.title))\(mark)</label>"
            + "<input \(attributes) value=\"\(HTML.escape(value))\">\(help)\n"
    }
}
