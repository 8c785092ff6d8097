import pytest

from .support import host_tree  # noqa: F401  (fixture)


@pytest.fixture(autouse=True, scope="session")
def own_cache(tmp_path_factory: pytest.TempPathFactory):
    """The checks' cache (type check and knip baselines) is this test run's
    own, never the developer's (~/.cache/mesh-codemod); a test that counts
    baseline runs sets its own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MESH_CODEMOD_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
        yield
