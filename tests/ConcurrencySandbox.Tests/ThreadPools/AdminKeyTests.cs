using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Tests.ThreadPools;

/// <summary>Two servers for the class, one without a key and one with "s3cret"; no test changes the pool's limits.</summary>
[Collection(ProcessWideCollection.Name)]
public sealed class AdminKeyTests(SandboxServerFixture open, AdminKeyTests.KeyedServer keyed)
    : RestoresThreadPoolLimits, IClassFixture<SandboxServerFixture>, IClassFixture<AdminKeyTests.KeyedServer>
{
    [Fact]
    public async Task WithoutAKeyLoopbackCallersMayTune()
    {
        using var response = await open.Client.PostAsync("/api/threadpool/reset", null);

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
        using var request = new HttpRequestMessage(HttpMethod.Put, "/api/threadpool") { Content = JsonContent.Create(new { minIoThreads = Original.MinIoThreads }) };
        if (sentKey is not null)
        {
            request.Headers.Add(AdminKeyFilter.HeaderName, sentKey);
        }

        using var response = await keyed.Client.SendAsync(request);

        Assert.Equal(expected, response.StatusCode);
    }

    [Theory]
    [InlineData("{\"minWorkerThreads\":")]
    [InlineData("")]
    [InlineData("{\"minWorkerThreadz\":1}")]
    public async Task TheKeyIsCheckedBeforeTheBody(string body)
    {
        using var response = await keyed.Client.PutAsync("/api/threadpool", new StringContent(body, System.Text.Encoding.UTF8, "application/json"));

        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
    }

    [Fact]
    public async Task ReadingNeedsNoKey()
    {
        using var response = await keyed.Client.GetAsync("/api/threadpool");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public async Task SwaggerOffersTheKeyThroughAuthorizeOnTheTuningEndpoints()
    {
        using var document = JsonDocument.Parse(await open.Client.GetStringAsync("/swagger/v1/swagger.json"));

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

    /// <summary>A server with Admin:Key set.</summary>
    public sealed class KeyedServer() : SandboxServerFixture("Admin:Key=s3cret");
}
