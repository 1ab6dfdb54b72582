namespace ConcurrencySandbox.Api;

/// <summary>Builds the sandbox's web application; the API, the tests and the load runner all start it here.</summary>
public static class SandboxApp
{
    public static WebApplication Build(string[] args)
    {
        var builder = WebApplication.CreateBuilder(args);
        var app = builder.Build();
        app.MapGet("/healthz", () => TypedResults.Ok(new { status = "ok" }));
        return app;
    }
}
