using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Tests.ThreadPools;

[Collection(ProcessWideCollection.Name)]
public sealed class AdminKeyTests : RestoresThreadPoolLimits
{
    [Fact]
    public async Task WithoutAKeyLoopbackCallersMayTune()
    {
        await using var server = await SandboxServer.StartAsync();

        using var response = await server.Client.PostAsync("/api/threadpool/reset", null);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public void WithoutAKeyOtherCallersAreForbidden()
    {
        var refusal = AdminKeyFilter.Refusal(configuredKey: null, sentKey: "", IPAddress.Parse("10.1.2.3"));

        Assert.Equal(StatusCodes.Status403Forbidden, refusal?.StatusCode);
        Assert.Null(AdminKeyFilter.Refusal(configuredKey: null, sentKey: "", IPAddress.IPv6Loopback));
    }

    [Theory]
    [InlineData(null, HttpStatusCode.Unauthorized)]
    [InlineData("wrong", HttpStatusCode.Forbidden)]
    [InlineData("s3cret", HttpStatusCode.OK)]
    public async Task WithAKeyConfiguredTheHeaderDecides(string? sentKey, HttpStatusCode expected)
    {
        await using var server = await SandboxServer.StartAsync("Admin:Key=s3cret");
        using var request = new HttpRequestMessage(HttpMethod.Put, "/api/threadpool") { Content = JsonContent.Create(new { minIoThreads = Original.MinIoThreads }) };
        if (sentKey is not null)
        {
            request.Headers.Add(AdminKeyFilter.HeaderName, sentKey);
        }

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(expected, response.StatusCode);
    }

    [Theory]
    [InlineData("{\"minWorkerThreads\":")]
    [InlineData("")]
    [InlineData("{\"minWorkerThreadz\":1}")]
    public async Task TheKeyIsCheckedBeforeTheBody(string body)
    {
        await using var server = await SandboxServer.StartAsync("Admin:Key=s3cret");

        using var response = await server.Client.PutAsync("/api/threadpool", new StringContent(body, System.Text.Encoding.UTF8, "application/json"));

        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
    }

    [Fact]
    public async Task ReadingNeedsNoKey()
    {
        await using var server = await SandboxServer.StartAsync("Admin:Key=s3cret");

        using var response = await server.Client.GetAsync("/api/threadpool");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public async Task SwaggerOffersTheKeyThroughAuthorizeOnTheTuningEndpoints()
    {
        await using var server = await SandboxServer.StartAsync();
        using var document = JsonDocument.Parse(await server.Client.GetStringAsync("/swagger/v1/swagger.json"));

        var scheme = document.RootElement.GetProperty("components").GetProperty("securitySchemes").GetProperty("AdminKey");
        Assert.Equal("apiKey", scheme.GetProperty("type").GetString());
        Assert.Equal("header", scheme.GetProperty("in").GetString());
        Assert.Equal(AdminKeyFilter.HeaderName, scheme.GetProperty("name").GetString());
        var paths = document.RootElement.GetProperty("paths");
        Assert.True(paths.GetProperty("/api/threadpool").GetProperty("put").TryGetProperty("security", out _));
        Assert.True(paths.GetProperty("/api/threadpool/reset").GetProperty("post").TryGetProperty("security", out _));
        var readSecurity = Assert.Single(paths.GetProperty("/api/threadpool").GetProperty("get").GetProperty("security").EnumerateArray());
        Assert.Empty(readSecurity.EnumerateObject());
    }
}
