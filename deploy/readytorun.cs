// Which assemblies in a folder carry ReadyToRun code: deploy/ci-containers.sh runs it (`dotnet run deploy/readytorun.cs
// -- FOLDER NAME...`) over the load runner image's files, to check that a Release publish precompiled the observer's
// assemblies (ReadyToRunTheObserver in the runner's csproj) and left the engine and the app to the JIT. Prints one line per
// name, "NAME: ReadyToRun", "NAME: IL only" or "NAME: missing"; exits 2 when the folder or a name is missing.
using System.Reflection.PortableExecutable;

if (args.Length < 2 || !Directory.Exists(args[0]))
{
    Console.Error.WriteLine("usage: dotnet run deploy/readytorun.cs -- FOLDER NAME... (a folder of assemblies and their names without .dll)");
    return 2;
}

var missing = false;
foreach (var name in args[1..])
{
    var path = Path.Combine(args[0], name + ".dll");
    if (!File.Exists(path))
    {
        Console.WriteLine($"{name}: missing");
        missing = true;
        continue;
    }

    // ReadyToRun code is reached from the CLI header's managed native header directory; an IL-only assembly has none.
    using var pe = new PEReader(File.OpenRead(path));
    Console.WriteLine($"{name}: {(pe.PEHeaders.CorHeader is { ManagedNativeHeaderDirectory.Size: > 0 } ? "ReadyToRun" : "IL only")}");
}

return missing ? 2 : 0;
