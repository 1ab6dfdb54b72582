using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Validation;

/// <summary>Endpoint metadata declaring a JSON object body: its properties (read by <see cref="JsonBodyReader"/>) and an example for Swagger.</summary>
public sealed record JsonBodyMetadata(IReadOnlyList<IntegerParameter> Properties, string Example);

public static class JsonBody
{
    /// <summary>Declares the body so Swagger documents each property's type, range and meaning, with an example.</summary>
    public static RouteHandlerBuilder WithJsonBody(this RouteHandlerBuilder builder, IReadOnlyList<IntegerParameter> properties, string example) =>
        builder.WithMetadata(new JsonBodyMetadata(properties, example));

    /// <summary>Reads at most <paramref name="maxBytes"/> + 1 bytes, so a larger body is seen as too large rather than cut into valid JSON.</summary>
    public static async Task<byte[]> ReadAsync(HttpRequest request, int maxBytes, CancellationToken cancellationToken)
    {
        using var buffer = new MemoryStream();
        var chunk = new byte[8192];
        int read;
        while (buffer.Length <= maxBytes && (read = await request.Body.ReadAsync(chunk, cancellationToken)) > 0)
        {
            buffer.Write(chunk, 0, read);
        }

        return buffer.ToArray();
    }
}
