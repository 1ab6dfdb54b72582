using System.Text.Json;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// Reads a JSON object body strictly against its declared properties: an empty or malformed body, a body that is
/// not an object, an unknown or repeated property, a value of the wrong JSON type or out of range is named in
/// one 400 answer with the expected type and range.
/// </summary>
public sealed class JsonBodyReader : ValidationErrors
{
    /// <summary>The key under which problems with the body as a whole are reported.</summary>
    public const string BodyKey = "body";

    private readonly Dictionary<string, long> _values = new(StringComparer.Ordinal);

    public JsonBodyReader(ReadOnlySpan<byte> body, IReadOnlyList<IntegerParameter> properties)
    {
        var expected = $"a JSON object with any of {string.Join(", ", properties.Select(p => $"{p.Name} ({p.AllowedRange})"))}";
        if (body.Trim(" \t\r\n"u8).IsEmpty)
        {
            Fail(BodyKey, $"The body is empty: send {expected}.");
            return;
        }

        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(body.ToArray());
        }
        catch (JsonException e)
        {
            Fail(BodyKey, $"The body is not valid JSON ({e.Message}): send {expected}.");
            return;
        }

        using (document)
        {
            if (document.RootElement.ValueKind != JsonValueKind.Object)
            {
                Fail(BodyKey, $"The body is a JSON {document.RootElement.ValueKind.ToString().ToLowerInvariant()}: send {expected}.");
                return;
            }

            foreach (var property in document.RootElement.EnumerateObject())
            {
                ReadProperty(property, properties, expected);
            }
        }
    }

    /// <summary>The value sent for a declared property, or null when the body left it out.</summary>
    public long? Read(IntegerParameter property) => _values.TryGetValue(property.Name, out var value) ? value : null;

    public ValidationProblem Problem() => Problem("The request body is invalid.");

    private void ReadProperty(JsonProperty property, IReadOnlyList<IntegerParameter> properties, string expected)
    {
        var declared = properties.FirstOrDefault(p => p.Name == property.Name);
        if (declared is null)
        {
            Fail(property.Name, $"'{property.Name}' is not a known property: send {expected}.");
        }
        else if (_values.Remove(declared.Name) || Has(declared.Name))
        {
            Fail(declared.Name, $"'{declared.Name}' appears more than once.");
        }
        else if (property.Value.ValueKind == JsonValueKind.Number && property.Value.TryGetInt64(out var value) && declared.Allows(value))
        {
            _values[declared.Name] = value;
        }
        else
        {
            Fail(declared.Name, declared.Rejection(property.Value.GetRawText()));
        }
    }
}
