"""privcheck's shared vocabulary: claims, neighbour relations, errors, randomness, protocols, divergences."""

from .claims import FDP, ApproxDP, Claim, GaussianDP, LocalDP, PureDP, RenyiDP, ZCDP, claim_to_dict, describe_claim, with_relation
from .divergences import (DEFAULT_ORDERS, epsilon_for_delta, hockey_stick, max_log_ratio, renyi, round_down,
                          round_up, zcdp_rho)
from .errors import ExactMethodUnavailable, InvalidArgument, PrivcheckError, TargetError, check_int, check_real
from .neighbours import (AddRemove, AllPairs, NeighbourRelation, ReplaceOne, ReplaceRecord, ReplaceUser,
                         TableNeighbours, Unspecified, ViewNeighbours, relation_from_name)
from .protocols import CallableMechanism, Mechanism, as_mechanism, draw, has_density_face, has_finite_face
from .rng import CHUNK_SIZE, as_generator, chunk_generator, chunk_sizes, resolve_seed

__all__ = [
    "PureDP", "ApproxDP", "RenyiDP", "ZCDP", "GaussianDP", "FDP", "Claim", "LocalDP", "claim_to_dict", "describe_claim", "with_relation",
    "max_log_ratio", "hockey_stick", "epsilon_for_delta", "renyi", "zcdp_rho", "DEFAULT_ORDERS", "round_down",
    "round_up",
    "PrivcheckError", "InvalidArgument", "ExactMethodUnavailable", "TargetError", "check_real", "check_int",
    "NeighbourRelation", "Unspecified", "AllPairs", "ReplaceOne", "ReplaceRecord", "ReplaceUser", "AddRemove", "TableNeighbours",
    "ViewNeighbours", "relation_from_name",
    "Mechanism", "CallableMechanism", "as_mechanism", "draw", "has_finite_face", "has_density_face",
    "CHUNK_SIZE", "resolve_seed", "as_generator", "chunk_generator", "chunk_sizes",
]
