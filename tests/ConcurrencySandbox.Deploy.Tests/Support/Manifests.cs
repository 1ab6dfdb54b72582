namespace ConcurrencySandbox.Deploy.Tests.Support;

/// <summary>The Kubernetes manifests and kustomizations under deploy/k8s.</summary>
internal static class Manifests
{
    public const string K8s = "deploy/k8s";

    public static IEnumerable<string> KustomizationDirectories() =>
        Directory.EnumerateFiles(Repository.PathOf(K8s), "kustomization.yaml", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(Repository.Root, Path.GetDirectoryName(path)!).Replace(Path.DirectorySeparatorChar, '/'))
            .Order();

    public static object? Kustomization(string directory) => Yaml.LoadFile($"{directory}/kustomization.yaml");

    /// <summary>The files and directories a kustomization names, relative to the repository.</summary>
    public static IEnumerable<string> ReferencedPaths(string directory)
    {
        var kustomization = Kustomization(directory);
        var paths = kustomization.List("resources").Concat(kustomization.List("components")).OfType<string>()
            .Concat(kustomization.List("patches").Select(patch => patch.Text("path")).OfType<string>());
        return paths.Select(path => Path.GetRelativePath(Repository.Root, Repository.PathOf($"{directory}/{path}")).Replace(Path.DirectorySeparatorChar, '/'));
    }

    public static object? Load(string relativePath) => Yaml.LoadFile($"{K8s}/{relativePath}");

    public static object? PodSpec(object? workload) => workload.At("spec", "template", "spec");

    public static object? Container(object? workload, string name) =>
        Assert.Single(PodSpec(workload).List("containers").Concat(PodSpec(workload).List("initContainers")), container => container.Text("name") == name);

    /// <summary>The container port a probe or Service port names, by number or by port name.</summary>
    public static string? ResolvePort(object? container, string? port) =>
        container.List("ports").FirstOrDefault(p => p.Text("name") == port || p.Text("containerPort") == port).Text("containerPort");

    public static IEnumerable<object?> RenderedObjects(string kustomization)
    {
        var (exitCode, output, error) = ExternalTool.Run("kubectl", "kustomize", kustomization);
        Assert.True(exitCode == 0, $"kubectl kustomize {kustomization} failed: {error}");
        return Yaml.LoadAll(output);
    }
}
