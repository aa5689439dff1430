# pragma version 0.4.3
# pragma evm-version prague
"""
@title A minimal ERC-20 for SignerKit's batch tests (test fixture)
@notice `transfer`, `approve`, `transferFrom`, `balanceOf`, `allowance`; the whole supply is minted at
        deployment, `amount` to each holder. Overdrawn balances and allowances revert (checked
        arithmetic), which the atomicity tests rely on.
"""

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256


event Approval:
    owner: indexed(address)
    spender: indexed(address)
    value: uint256


balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])
totalSupply: public(uint256)


@deploy
def __init__(holders: DynArray[address, 8], amount: uint256):
    for holder: address in holders:
        self.balanceOf[holder] += amount
        self.totalSupply += amount
        log Transfer(sender=empty(address), receiver=holder, value=amount)


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self._move(msg.sender, receiver, amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    log Approval(owner=msg.sender, spender=spender, value=amount)
    return True


@external
def transferFrom(owner: address, receiver: address, amount: uint256) -> bool:
    self.allowance[owner][msg.sender] -= amount
    self._move(owner, receiver, amount)
    return True


@internal
def _move(sender: address, receiver: address, amount: uint256):
    self.balanceOf[sender] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=sender, receiver=receiver, value=amount)
