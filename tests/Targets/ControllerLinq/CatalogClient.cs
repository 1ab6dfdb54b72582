using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

namespace ControllerLinq;

/// <summary>A legacy synchronous client of the catalog, served by this same process on loopback.</summary>
public sealed class CatalogClient(IServer server) : IDisposable
{
    public const int CatalogDelayMs = 150;

    private readonly HttpClient _http = new();

    public string Lookup(int id)
    {
        using var response = _http.Send(new HttpRequestMessage(HttpMethod.Get, new Uri(CatalogAddress, $"catalog/{id}")));
        using var reader = new StreamReader(response.Content.ReadAsStream());
        return reader.ReadToEnd();
    }

    private Uri CatalogAddress => new(server.Features.Get<IServerAddressesFeature>()!.Addresses.First() + "/");

    public void Dispose() => _http.Dispose();
}
