import { Link, useLocation, useNavigate } from 'react-router-dom';
import { signIn } from './actions';
import { AuthForm } from './AuthForm';

export function SignInPage() {
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/checks';
  return (
    <AuthForm
      title="Sign in to Vigil"
      submitLabel="Sign in"
      fields={[
        { name: 'email', label: 'E-mail', type: 'email', autoComplete: 'username' },
        { name: 'password', label: 'Password', type: 'password', autoComplete: 'current-password' },
      ]}
      onSubmit={async (v) => {
        await signIn(v.email ?? '', v.password ?? '');
        navigate(from, { replace: true });
      }}
      footer={
        <>
          No account yet? <Link to="/signup">Sign up</Link>
        </>
      }
    />
  );
}
