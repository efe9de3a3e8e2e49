"""torch.nn.modules: every layer class, one file per family."""
from .module import Module  # noqa: F401
from .container import Container, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .linear import Identity, Linear, LazyLinear, Bilinear  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d  # noqa: F401
from .conv import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,  # noqa: F401
                   LazyConvTranspose3d)
from .pooling import (  # noqa: F401
    MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d,
    AdaptiveMaxPool2d, MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d, MaxUnpool1d, MaxUnpool2d,
    MaxUnpool3d, LPPool1d, LPPool2d, LPPool3d, FractionalMaxPool2d, FractionalMaxPool3d,
)
from .batchnorm import (BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm, LazyBatchNorm1d,  # noqa: F401
                        LazyBatchNorm2d, LazyBatchNorm3d)
from .normalization import LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, CrossMapLRN2d  # noqa: F401
from .instancenorm import (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d,  # noqa: F401
                           LazyInstanceNorm2d, LazyInstanceNorm3d)
from .padding import (  # noqa: F401
    ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d, ReflectionPad1d, ReflectionPad2d,
    ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, CircularPad1d, CircularPad2d,
    CircularPad3d,
)
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: F401
from .channelshuffle import ChannelShuffle  # noqa: F401
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d  # noqa: F401
from .fold import Fold, Unfold  # noqa: F401
from .distance import PairwiseDistance, CosineSimilarity  # noqa: F401
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout  # noqa: F401
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from .activation import (  # noqa: F401
    Threshold, ReLU, RReLU, Hardtanh, ReLU6, Sigmoid, Hardsigmoid, Tanh, SiLU, Mish, Hardswish, ELU, CELU, SELU,
    GLU, GELU, Hardshrink, LeakyReLU, LogSigmoid, Softplus, Softshrink, PReLU, Softsign, Tanhshrink, Softmin,
    Softmax, Softmax2d, LogSoftmax,
)
from .loss import (  # noqa: F401
    L1Loss, MSELoss, SmoothL1Loss, HuberLoss, NLLLoss, NLLLoss2d, CTCLoss, CrossEntropyLoss, BCELoss, BCEWithLogitsLoss,
    KLDivLoss,
    CosineEmbeddingLoss, MarginRankingLoss, HingeEmbeddingLoss, SoftMarginLoss, TripletMarginLoss, PoissonNLLLoss,
    GaussianNLLLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, MultiLabelMarginLoss, TripletMarginWithDistanceLoss,
    LinearCrossEntropyLoss,
)
from .linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: F401

from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401
from .activation import MultiheadAttention  # noqa: F401
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .transformer import (TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,  # noqa: F401
                          TransformerDecoder, Transformer)

# the layer classes only (not the submodules, e.g. .utils, which would shadow nn.utils)
__all__ = [name for name, obj in list(globals().items()) if isinstance(obj, type) and issubclass(obj, Module)]
