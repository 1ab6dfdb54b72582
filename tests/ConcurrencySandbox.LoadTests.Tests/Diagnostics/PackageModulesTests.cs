using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A library the service ships from a NuGet package is not the developer's code: the sandbox API's Swagger middleware
/// (Swashbuckle) sat on every request's stack above an endpoint the JIT inlined away, and was named as the method that
/// blocks (/api/sleep/sync, 2026-11-29). Its deps.json says which modules are packages.
/// </summary>
public sealed class PackageModulesTests
{
    private const string Deps = """
        {
          "targets": {
            ".NETCoreApp,Version=v10.0": {
              "Shop/1.0.0": { "runtime": { "Shop.dll": {} } },
              "Swashbuckle.AspNetCore.SwaggerUI/10.3.1": { "runtime": { "lib/net8.0/Swashbuckle.AspNetCore.SwaggerUI.dll": {} } }
            }
          },
          "libraries": {
            "Shop/1.0.0": { "type": "project" },
            "Swashbuckle.AspNetCore.SwaggerUI/10.3.1": { "type": "package" }
          }
        }
        """;

    [Fact]
    public void AFrameOfAPackageModuleIsNotUserCodeSoTheStackHasNone()
    {
        var folder = Directory.CreateTempSubdirectory("package-modules-").FullName;
        try
        {
            File.WriteAllText(Path.Combine(folder, "Shop.deps.json"), Deps);
            var (shop, swagger) = (Path.Combine(folder, "Shop.dll"), Path.Combine(folder, "Swashbuckle.AspNetCore.SwaggerUI.dll"));
            var stack = new ThreadStack(1, ["System.Threading.WaitHandle.WaitOne", "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", "Swashbuckle.AspNetCore.SwaggerUI.SwaggerUIMiddleware.Invoke", "Shop.Program.Main"])
            {
                Locations = [null, null, new FrameLocation(swagger, 0x06000001, 10), new FrameLocation(shop, 0x06000002, 0)],
            };

            Assert.True(PackageModules.IsPackage(swagger));
            Assert.False(PackageModules.IsPackage(shop));
            Assert.Equal(3, BlockingSites.UserFrame(stack));
            Assert.Equal([shop], BlockingSites.AppModules([stack]));
            // Without a location the name decides, as before.
            Assert.Equal(2, BlockingSites.UserFrame(stack with { Locations = [] }));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
